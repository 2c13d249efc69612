"""Local stand-in for Meta's Cloud API: send endpoint, signed webhooks, customers, faults, ledger."""
