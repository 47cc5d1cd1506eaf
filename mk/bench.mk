# Benchmarks on the kind cluster (benchmarks/run.sh): converge against kubectl, build and image; then kwok's simulated
# nodes and two second schedulers for throughput and pod_placement at scale. docs/benchmarks.md is
# generated from benchmarks/results/*.json by benchmarks/report.py.
.PHONY: bench bench-smoke
BENCHMARKS ?=

bench: install cluster k8s-source ## every benchmark at full size (or BENCHMARKS="placement converge ..."); rewrites benchmarks/results/ and docs/benchmarks.md
	benchmarks/run.sh full $(BENCHMARKS)

bench-smoke: install cluster k8s-source ## the benchmarks' code at a small size, nothing kept (part of make test)
	benchmarks/run.sh smoke
