"""Webhook receiver (verify, signature, store, 200), parser and processor; no ui, no app."""
