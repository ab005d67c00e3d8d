"""The environment contract: the server refuses a bad environment at start, naming the variable, the value and the fix."""
import unittest

from serving import config

from .support import BASE_ENV, clean_environ, run_python


class ConfigurationErrors(unittest.TestCase):
    def run_server(self, **overrides):
        env = {**clean_environ(), **BASE_ENV, "SAGEMAKER_BIND_TO_PORT": "1", **overrides}
        return run_python(["-m", "serving"], {k: v for k, v in env.items() if v is not None})

    def test_a_missing_variable_stops_the_server_with_exit_code_2_naming_it(self):
        result = self.run_server(MODEL_SERVER_MAX_BATCH_SIZE=None)
        self.assertEqual(result.returncode, 2)
        self.assertIn("MODEL_SERVER_MAX_BATCH_SIZE is not set", result.stderr)
        self.assertIn("lib/serving/environment.ts", result.stderr)
        self.assertNotIn("Traceback", result.stderr)

    def test_every_problem_is_reported_at_once_with_the_value_received(self):
        result = self.run_server(
            MODEL_SERVER_MAX_DELAY_MS="soon", MODEL_SERVER_VISIBLE_CORES="0;3-2", MODEL_SERVER_REQUEST_TIMEOUT_MS="0"
        )
        self.assertEqual(result.returncode, 2)
        self.assertIn("MODEL_SERVER_MAX_DELAY_MS='soon' is not valid", result.stderr)
        self.assertIn("MODEL_SERVER_VISIBLE_CORES='0;3-2' is not valid", result.stderr)
        self.assertIn("MODEL_SERVER_REQUEST_TIMEOUT_MS='0' is not valid", result.stderr)

    def test_a_batch_larger_than_the_compiled_one_is_refused_with_the_fix(self):
        result = self.run_server(MODEL_SERVER_MAX_BATCH_SIZE="16", MODEL_BATCH_SIZE="8")
        self.assertEqual(result.returncode, 2)
        self.assertIn("MODEL_SERVER_MAX_BATCH_SIZE=16 exceeds MODEL_BATCH_SIZE=8", result.stderr)
        self.assertIn("set MODEL_SERVER_MAX_BATCH_SIZE to at most 8", result.stderr)

    def test_a_neuron_core_given_to_two_workers_is_refused(self):
        result = self.run_server(MODEL_SERVER_VISIBLE_CORES="0-1;1-2")
        self.assertEqual(result.returncode, 2)
        self.assertIn("gives NeuronCore 1 to workers 0 and 1", result.stderr)

    def test_more_front_ends_than_workers_is_refused_with_the_fix(self):
        result = self.run_server(MODEL_SERVER_VISIBLE_CORES="0;1", MODEL_SERVER_FRONT_ENDS="3")
        self.assertEqual(result.returncode, 2)
        self.assertIn("MODEL_SERVER_FRONT_ENDS=3 exceeds the 2 worker(s)", result.stderr)
        self.assertIn("set MODEL_SERVER_FRONT_ENDS to at most 2", result.stderr)


class ParsedConfiguration(unittest.TestCase):
    def test_a_valid_environment_parses_to_seconds_and_core_groups(self):
        parsed = config.load({**BASE_ENV, "MODEL_SERVER_VISIBLE_CORES": "0-1;2-3;4,5", "MODEL_SERVER_MAX_DELAY_MS": "2.5"})
        self.assertEqual(parsed.visible_cores, ["0-1", "2-3", "4,5"])
        self.assertEqual(parsed.max_delay_s, 0.0025)
        self.assertEqual(parsed.request_timeout_s, 30.0)
        self.assertEqual(parsed.port, 8080)
        self.assertEqual(parsed.program, "inference.py")

    def test_front_ends_own_contiguous_even_shares_of_the_workers_by_instance_index(self):
        groups = ["0", "1", "2", "3", "4"]
        self.assertEqual(config.shares(groups, 1), [[(0, "0"), (1, "1"), (2, "2"), (3, "3"), (4, "4")]])
        self.assertEqual(config.shares(groups, 2), [[(0, "0"), (1, "1"), (2, "2")], [(3, "3"), (4, "4")]])
        self.assertEqual(config.shares(groups[:4], 4), [[(0, "0")], [(1, "1")], [(2, "2")], [(3, "3")]])

    def test_core_groups_expand_to_their_cores(self):
        self.assertEqual(config.cores_of("2-3"), [2, 3])
        self.assertEqual(config.cores_of("51,52"), [51, 52])
        self.assertEqual(config.cores_of("10"), [10])
