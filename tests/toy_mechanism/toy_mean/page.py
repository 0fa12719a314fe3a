from ui.shell import render

render("toy-mean")
