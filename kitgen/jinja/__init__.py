"""Jinja as kitgen runs it: the budgeted sandbox and the template lookup."""
