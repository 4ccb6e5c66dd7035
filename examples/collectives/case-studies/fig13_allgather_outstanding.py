#!/usr/bin/env python3
"""Seed 003 Figure 13 (§5.3): all-gather, 32 GPUs, 32 workgroups per GPU, outstanding-request limits per CU.

Prints the table (algorithm bandwidth per buffer size and series) for the
committed config fig13-allgather-outstanding.json; see case_study.py for the options
(--sizes, --max-size, --series, --jobs, --json, --snr).
"""
import case_study

case_study.main("fig13-allgather-outstanding.json", __doc__.splitlines()[0])
