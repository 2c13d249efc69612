"""Composition root and `inbox` CLI; the only package that imports both ui and backend."""
