#!/usr/bin/env python3
"""Seed 003 Figure 10 (§5.2): get- vs put-based reduce-scatter, 32 GPUs, 32 workgroups per GPU.

Prints the table (algorithm bandwidth per buffer size and series) for the
committed config fig10-reducescatter-get-put.json; see case_study.py for the options
(--sizes, --max-size, --series, --jobs, --json, --snr).
"""
import case_study

case_study.main("fig10-reducescatter-get-put.json", __doc__.splitlines()[0])
