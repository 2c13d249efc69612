"""The office network: the TLS listener for other desks, its certificate, invites, the advertisement."""
