"""Enqueue, claim, send, record outcomes, retry and resolve; imports domain, database, httpx."""
