"""The lumin command line."""
