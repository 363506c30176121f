"""The live twin as a product feature: a Twin record per fabric intent, services to boot, check, break and
compare it with the static validators (labs/ does the work; this app records it and exposes it)."""
