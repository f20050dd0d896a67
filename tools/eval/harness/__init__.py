# tools/eval/harness: the evaluation harness behind tools/eval/report.py (issue 7).
# Standard library only, Python 3.9+: it runs on the GPU host's Python as it is.
