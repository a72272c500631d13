"""The harness: matches, the results store, statistics, benchmarks, experiments, exports."""
