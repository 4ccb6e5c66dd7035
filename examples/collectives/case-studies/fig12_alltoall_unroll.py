#!/usr/bin/env python3
"""Seed 003 Figure 12 (§5.3): all-to-all, 16 GPUs, 60 workgroups per GPU, loop unrolling 1-16.

Prints the table (algorithm bandwidth per buffer size and series) for the
committed config fig12-alltoall-unroll.json; see case_study.py for the options
(--sizes, --max-size, --series, --jobs, --json, --snr).
"""
import case_study

case_study.main("fig12-alltoall-unroll.json", __doc__.splitlines()[0])
