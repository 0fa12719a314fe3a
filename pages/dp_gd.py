from ui.shell import render

render("dp-gd")
