"""The Python module against the CLI on the same inputs: a prediction, a
16-NPU simulation, a Chakra trace and a run.db give the same numbers either
way. Run by ctest with PYTHONPATH=<build>/python and SNR_BIN=<build>/snr."""
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import threading
import unittest

import snr

SNR = os.environ["SNR_BIN"]
SOURCE = pathlib.Path(os.environ["SNR_SOURCE_DIR"])
DATA = pathlib.Path(os.environ.get("SNR_SHARED_DATA", SOURCE.parent / "shared" / "data"))
EXAMPLES = SOURCE / "examples" / "pathfind"


def cli_json(*args):
    out = subprocess.run([SNR, *map(str, args)], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


class PathfindTest(unittest.TestCase):
    def test_predict_equals_the_cli(self):
        model = EXAMPLES / "gpt3-175B-train.yaml"
        parallelism = "tp=8,pp=8,dp=1,sp,recompute=selective"
        ours = snr.pathfind.predict(model, parallelism, hw="a100-80gb")
        cli = cli_json("pathfind", "predict", "--hw", "a100-80gb", "--model", model, "--parallelism", parallelism,
                       "--json")
        self.assertEqual(ours, cli)
        self.assertGreater(ours["time_s"], 1.0)
        self.assertAlmostEqual(sum(c["seconds"] for c in ours["causes"]), ours["time_s"], delta=1e-9 * ours["time_s"])

    def test_dict_configs_and_a_generated_device(self):
        gemm = {"workload": {"name": "gemm-dict", "kind": "gemm", "gemm": {"m": 8192, "n": 8192, "k": 8192},
                             "dtype": "bf16"}}
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / "gemm.yaml"
            path.write_text(json.dumps(gemm))
            cli = cli_json("pathfind", "predict", "--tech", "n7", "--arch", "gpu-16x16", "--budget", "a100-like",
                           "--model", path, "--parallelism", "RC-2-2-d1-p1", "--json")
        ours = snr.pathfind.predict(gemm, "RC-2-2-d1-p1", tech="n7", arch="gpu-16x16", budget="a100-like")
        self.assertEqual(ours, cli)
        self.assertIn("generated", ours)

    def test_search_equals_the_cli(self):
        model = EXAMPLES / "gemm-8k.yaml"
        ours = snr.pathfind.search(model, "RC-2-2-d1-p1", settings={"steps": 5, "starts": 2}, seed=3)
        cli = cli_json("pathfind", "search", "--tech", "n7", "--arch", "gpu-16x16", "--budget", "a100-like",
                       "--model", model, "--parallelism", "RC-2-2-d1-p1", "--steps", 5, "--starts", 2, "--seed", 3,
                       "--json")
        self.assertEqual(ours, cli)
        with self.assertRaises(snr.Error) as raised:
            snr.pathfind.search(model, "RC-2-2-d1-p1", settings={"no_such_key": 1})
        self.assertIn("no_such_key", str(raised.exception))
        self.assertIn("steps", snr.pathfind.search.__doc__)

    def test_errors_name_the_input(self):
        with self.assertRaises(snr.Error) as raised:
            snr.pathfind.predict(EXAMPLES / "gemm-8k.yaml", "RC-2-2-d1-p1", hw="no-such-device")
        self.assertIn("no-such-device", str(raised.exception))
        with self.assertRaises(ValueError):  # snr.Error is a ValueError
            snr.pathfind.predict(EXAMPLES / "gemm-8k.yaml", "RC-2-2-d1-p1")  # no device at all
        with self.assertRaises(TypeError):
            snr.pathfind.predict(EXAMPLES / "gemm-8k.yaml", "RC-2-2-d1-p1", hw=42)

    def test_help_documents_arguments_and_units(self):
        doc = snr.pathfind.predict.__doc__
        for word in ("model", "parallelism", "hw", "tech", "arch", "budget", "mapping", "devices", "time_s",
                     "seconds", "bytes"):
            self.assertIn(word, doc)

    def test_the_gil_is_released_while_predicting(self):
        # Several predictions on threads give the same answer as one alone.
        model = EXAMPLES / "gemm-8k.yaml"
        alone = snr.pathfind.predict(model, "CR-4-d1-p1", hw="v100")
        results = []
        threads = [threading.Thread(target=lambda: results.append(snr.pathfind.predict(model, "CR-4-d1-p1",
                                                                                     hw="v100")))
                   for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(results, [alone] * 4)


@unittest.skipUnless((DATA / "astra-sim").is_dir(), "shared ASTRA-sim configs not present")
class SimTest(unittest.TestCase):
    def test_sixteen_npus_equal_the_cli(self):
        astra = DATA / "astra-sim"
        system = astra / "system" / "native_collectives" / "Ring_4chunks.json"
        network = astra / "network" / "analytical" / "Ring_16npus.yml"
        memory = astra / "remote_memory" / "analytical" / "no_memory_expansion.json"
        with tempfile.TemporaryDirectory() as tmp:
            tmp = pathlib.Path(tmp)
            subprocess.run([SNR, "et", "generate", "--pattern", "dp", "--npus", "16", "--layers", "4", "--size",
                            "4MiB", "-o", tmp / "dp"], check=True, capture_output=True)
            subprocess.run([SNR, "sim", "--workload-configuration", tmp / "dp", "--system-configuration", system,
                            "--network-configuration", network, "--remote-memory-configuration", memory, "-o",
                            tmp / "run"], check=True, capture_output=True)
            summary = json.loads((tmp / "run" / "summary.json").read_text())
            npus = json.loads((tmp / "run" / "npus.json").read_text())
            ours = snr.sim.run(tmp / "dp", system, network, memory)
            self.assertEqual(ours["summary"], summary)
            self.assertEqual(ours["npus"], npus)
            self.assertEqual(len(ours["npus"]), 16)
            # The same network as a dict: same result.
            as_dict = {"topology": ["Ring"], "npus_count": [16], "bandwidth": [50.0], "latency": [500.0]}
            self.assertEqual(snr.sim.run(tmp / "dp", system, as_dict, memory)["summary"]["finish_ns"],
                             summary["finish_ns"])
            # Twice the bandwidth: no slower.
            faster = dict(as_dict, bandwidth=[100.0])
            self.assertLessEqual(snr.sim.run(tmp / "dp", system, faster, memory)["summary"]["finish_ns"],
                                 summary["finish_ns"])
            with self.assertRaises(snr.Error):
                snr.sim.run(tmp / "dp", system, dict(as_dict, npus_count=[8]), memory)

            # The trace reader: what `snr et jsonize` writes.
            subprocess.run([SNR, "et", "jsonize", f"{tmp / 'dp'}.3.et", "-o", tmp / "t3.json"], check=True,
                           capture_output=True)
            jsonized = json.loads((tmp / "t3.json").read_text())
            trace = snr.et.read(f"{tmp / 'dp'}.3.et")
            self.assertEqual(trace["nodes"], jsonized["nodes"])
            self.assertEqual(trace["globalMetadata"], jsonized["globalMetadata"])
            self.assertEqual(trace["skipped_records"], 0)


class RunDbTest(unittest.TestCase):
    def test_totals_equal_the_cli(self):
        snapshot = SOURCE / "src" / "formats" / "snapshot" / "testdata" / "ring_2chips.snr"
        with tempfile.TemporaryDirectory() as tmp:
            db = pathlib.Path(tmp) / "run.db"
            subprocess.run([SNR, "replay", snapshot, "-o", db], check=True, capture_output=True)
            totals = {t["name"]: t["a"] for t in cli_json("diff", db, db, "--json")["totals"]}
            run = snr.rundb.read(db, dependencies=True)
        self.assertEqual(run["total_cycles"], totals["total_cycles"])
        self.assertEqual(len(run["instructions"]["step"]), totals["instructions"])
        self.assertEqual(len(run["dmas"]["dma_id"]), totals["dmas"])
        self.assertEqual(sum(run["dmas"]["bytes"]), totals["dma_bytes"])
        self.assertEqual(sum(run["chips"]["instructions"]), totals["instructions"])
        self.assertGreater(len(run["dependencies"]["producer_step"]), 0)
        with self.assertRaises(snr.Error):
            snr.rundb.read(pathlib.Path(tmp) / "missing.db")


class ExampleTest(unittest.TestCase):
    def test_the_example_script_runs(self):
        out = subprocess.run([sys.executable,
                              SOURCE / "examples" / "python" / "explore.py"], check=True, capture_output=True,
                             text=True, env=dict(os.environ)).stdout
        self.assertIn("tp= 8 pp= 8", out)
        self.assertIn("replayed run: ", out)


if __name__ == "__main__":
    unittest.main()
