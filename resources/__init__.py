"""Data files shipped with the product (templates, styles, icons); a package for importlib.resources."""
