from ui.shell import render

render("dp-naive-bayes")
