"""The handler contract: SageMaker's names, batches concatenated along the first axis, context argument optional."""
import os
import sys
import tempfile
import types
import unittest

import numpy

from serving import config
from serving.handler import Handler, HandlerError, concat
from serving.tests.support import BASE_ENV


def module(**functions):
    result = types.ModuleType("inference")
    result.__file__ = "/opt/ml/model/code/inference.py"
    result.__dict__.update(functions)
    return result


class Concatenation(unittest.TestCase):
    def test_lists_concatenate_in_order(self):
        self.assertEqual(concat([["a"], ["b", "c"]]), ["a", "b", "c"])

    def test_numpy_arrays_concatenate_on_the_first_axis(self):
        batch = concat([numpy.ones((1, 3)), numpy.zeros((2, 3))])
        self.assertEqual(batch.shape, (3, 3))
        self.assertEqual(batch[:, 0].tolist(), [1, 0, 0])

    def test_one_request_passes_through_unchanged(self):
        only = numpy.ones((2, 2))
        self.assertIs(concat([only]), only)


class Conventions(unittest.TestCase):
    def test_functions_that_take_the_toolkit_context_get_none(self):
        handler = Handler(module(model_fn=lambda model_dir, context: (model_dir, context)))
        self.assertEqual(handler.model_fn("/m"), ("/m", None))

    def test_json_bodies_arrive_as_text_and_other_bodies_as_bytes(self):
        seen = []
        handler = Handler(module(model_fn=lambda d: None, input_fn=lambda body, ct: seen.append(body) or [body]))
        handler.input_fn(b'{"inputs": [1]}', "application/json; charset=utf-8")
        handler.input_fn(b"\x89PNG", "image/png")
        self.assertEqual(seen, ['{"inputs": [1]}', b"\x89PNG"])

    def test_output_fn_may_return_the_body_alone_or_with_its_content_type(self):
        plain = Handler(module(model_fn=lambda d: None, output_fn=lambda p, accept: "x"))
        typed = Handler(module(model_fn=lambda d: None, output_fn=lambda p, accept: (b"y", "text/csv")))
        self.assertEqual(plain.output_fn([1], "application/json"), (b"x", "application/json"))
        self.assertEqual(typed.output_fn([1], "application/json"), (b"y", "text/csv"))

    def test_a_module_with_transform_fn_is_refused_because_it_cannot_batch(self):
        with self.assertRaisesRegex(HandlerError, "transform_fn.*input_fn, predict_fn and output_fn"):
            Handler(module(model_fn=lambda d: None, transform_fn=lambda *a: None))

    def test_input_fn_must_return_a_sequence_of_inputs(self):
        handler = Handler(module(model_fn=lambda d: None, input_fn=lambda body, ct: 42))
        with self.assertRaisesRegex(HandlerError, "input_fn returned int"):
            handler.input_fn(b"{}", "application/json")

    def test_the_default_input_fn_reads_json_inputs(self):
        handler = Handler(module(model_fn=lambda d: None))
        self.assertEqual(handler.input_fn(b'{"inputs": [1, 2]}', "application/json"), [1, 2])


class HandlerLocationTest(unittest.TestCase):
    def _write(self, directory, name, marker):
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, name), "w") as f:
            f.write(f"def model_fn(model_dir):\n    return {marker!r}\n")

    def test_the_handler_is_read_from_the_code_dir_the_image_names_not_from_the_model_data(self):
        with tempfile.TemporaryDirectory() as root:
            model_dir = os.path.join(root, "model")
            self._write(os.path.join(model_dir, "code"), "located_in_model.py", "model data")
            self._write(os.path.join(root, "image-code"), "located_in_image.py", "image")
            handler = Handler.load(model_dir, "located_in_image.py", os.path.join(root, "image-code"))
            self.assertEqual(handler.model_fn(model_dir), "image")
            sys.modules.pop("located_in_image", None)

    def test_without_a_code_dir_the_handler_is_read_from_model_dir_code_as_on_sagemaker(self):
        with tempfile.TemporaryDirectory() as root:
            self._write(os.path.join(root, "code"), "located_in_model_data.py", "model data")
            handler = Handler.load(root, "located_in_model_data.py")
            self.assertEqual(handler.model_fn(root), "model data")
            sys.modules.pop("located_in_model_data", None)

    def test_the_code_dir_comes_from_the_environment(self):
        self.assertIsNone(config.load(dict(BASE_ENV)).code_dir)
        self.assertEqual(config.load(dict(BASE_ENV, MODEL_SERVER_CODE_DIR="/opt/x")).code_dir, "/opt/x")
