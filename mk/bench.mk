# Benchmarks on the kind cluster (benchmarks/run.sh): converge against kubectl, build and image; then kwok's simulated
# nodes and two second schedulers for throughput and pod_placement at scale. docs/benchmarks.md is
# generated from benchmarks/results/*.json by benchmarks/report.py.
.PHONY: bench bench-smoke bench-smoke-oldest
BENCHMARKS ?=

bench: install cluster k8s-source ## every benchmark at full size (or BENCHMARKS="placement converge ..."); rewrites benchmarks/results/ and docs/benchmarks.md
	benchmarks/run.sh full $(BENCHMARKS)

bench-smoke: install cluster k8s-source ## the benchmarks' code at a small size, nothing kept (part of make test)
	benchmarks/run.sh smoke

# make test runs the smoke size on the oldest maintained minor's cluster, last in its background chain (after the
# compact scenario has used that cluster): bench-smoke with KUBE_VERSION set on its command line, which make exports to
# benchmarks/run.sh (that version's cluster, Kubernetes source and kube-scheduler for the bench schedulers, kwok's nodes
# there); nothing on the newest minor's cluster, where the scenarios run.
bench-smoke-oldest: install ## bench-smoke on the oldest maintained minor's cluster (make test's background)
	$(MAKE) --no-print-directory -o install bench-smoke KUBE_VERSION=$(OLDEST_KUBE_VERSION)
