"""The RoCE-health gate of canary pushes (issue 34): one counter schema, vendor adapters, the gate, and a
synthetic counter plane to test it without hardware. Pure Python: nothing here imports Django."""
