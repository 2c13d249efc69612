"""Sandbox tests: conformance with recorded Graph traffic, validation, policy, webhooks, faults."""
