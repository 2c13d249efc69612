"""The backend's HTTP API as typed Python calls: the only code in ui that knows the wire format."""
