# names.py: what the report calls a method and the order of its series (tables,
# plots), without matplotlib (markdown.py and summary.py need them on hosts without it).
SERIES_ORDER = ('cudadenoise GPU', 'cudadenoise CPU', 'GPU peers', 'FFmpeg', 'OpenCV')


def method_name(run):
    if run['family'].startswith('cudadenoise'):
        return f"{run['label']} ({'GPU' if run['backend'] == 'cuda' else 'CPU'})"
    return f"{run['label']} ({run['family']})"
