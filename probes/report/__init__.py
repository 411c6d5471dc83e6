"""Committed evidence read back for people: tables, ranges, the legend, the HTML page, citations, diffs."""
