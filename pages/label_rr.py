from ui.shell import render

render("label-rr")
