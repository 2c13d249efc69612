"""Reports: read-side queries over messages, conversations and their status changes; no writes."""
