"""Who made an outbox message: the business through the API, an agent in a conversation, the away message.

Only a business message makes a later unquoted customer message a work item; an agent's reply ends
that claim; the away message does neither.
"""

from __future__ import annotations

ORIGIN_API = "api"
ORIGIN_AGENT = "agent"
ORIGIN_AUTO = "auto"
ORIGINS = (ORIGIN_API, ORIGIN_AGENT, ORIGIN_AUTO)
