"""Intents: what the fabric should do (underlay/overlay design, tenants, networks, RoCE classes), the stable
allocations made for it, and the compile runs that turn it into device configs."""
