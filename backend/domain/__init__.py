"""Pure rules with no I/O; imports only the standard library, phonenumbers and backend.domain."""
