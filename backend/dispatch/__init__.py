"""Outgoing webhooks: the shop's subscriptions and the dispatcher pushing journal events to them."""
