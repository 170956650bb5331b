"""rhgd's suite (issue 31 §4): every problem × every method, with the true
hypergradient measured outside the methods, to a dated Markdown report
with tables and plots. ``python3 -m suite --help`` (PYTHONPATH=python:bench)
or ``make suite``; methods.py documents the plug point for outside
methods."""
