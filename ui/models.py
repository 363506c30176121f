"""The UI app has no rows of its own: the capabilities (role permissions) are ``common.models.Capability``, twin
operations started from the twin page are recorded by the twins app (``twins.models.TwinOperation``)."""
