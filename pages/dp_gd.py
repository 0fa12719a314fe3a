from ui import share
from ui.shell import render

render("dp-gd")

share.page_share("pages/dp_gd.py", key="gd_share")
