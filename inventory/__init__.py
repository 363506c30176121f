"""Physical inventory: sites, fabrics, racks, switch models, switches, interfaces, optics, cables, GPU servers.

Writes go through services.py, reads through selectors.py; adapters.py is the only bridge to the pure core.
"""
