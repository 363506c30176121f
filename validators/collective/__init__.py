"""Collective traffic on the fabric: which links a training job's flows hash onto, before the job runs.

``simulate(inventory, Scenario(job=Job(gpus=1024), collective="ring-allreduce", qps=16)) -> Prediction``; the
check :mod:`.check` turns a prediction into ``collective.bottleneck`` findings and recommendations.
Modules: kernel (RoCE source port), hashing (switch hash functions), fabric (graph and ECMP routes), jobs
(placement, collectives), simulate (the flow-level model), check. docs/collective.md says what the model assumes.
"""

from .fabric import FabricGraph
from .hashing import HashConfig, HashFields, HashFunction
from .jobs import COLLECTIVES, Job
from .simulate import HashPolicy, Prediction, Scenario, simulate

__all__ = ["COLLECTIVES", "FabricGraph", "HashConfig", "HashFields", "HashFunction", "HashPolicy", "Job",
           "Prediction", "Scenario", "simulate"]
