"""Stand-in for SONiC's sonic-py-common (sonic-net/sonic-buildimage src/sonic-py-common): only what GCU and
sonic-config-engine call, answering as a single-ASIC switch whose identity the test gives in FT_GCU_* variables
(tests/gcu/README.md). Not SONiC code."""
