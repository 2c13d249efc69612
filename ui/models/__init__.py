"""Qt item models that adapt API resources for views, fetching pages incrementally."""
