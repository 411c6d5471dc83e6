"""Committed evidence read back for people: tables, cells, ranges, the legend, the HTML page,
citations, diffs and timelines."""
