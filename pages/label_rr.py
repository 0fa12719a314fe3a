from ui import share
from ui.shell import render

render("label-rr")

share.page_share("pages/label_rr.py", key="rr_share")
