"""Conversations, threading by context.id, attribution work queue, assignment, windows."""
