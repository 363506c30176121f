"""Change pipelines: change sets, rollouts (canary push, rolling upgrade), per-device steps, drift, audit."""
