"""The vLLM image names the instance pool that answered: every response carries `pool=<priority>` in the
custom-attributes header SageMaker returns as CustomAttributes, so the token proof judges each pool on its own."""
import unittest

from serving.vllm import pool_header
from serving.vllm.launch import with_pool_header
from serving.tests.test_vllm_cores import call, engine


class PoolHeaderTest(unittest.TestCase):
    def test_the_launcher_adds_the_middleware_once_and_only_in_a_pool(self):
        flag = "--middleware=serving.vllm.pool_header.PoolHeaderMiddleware"
        args = with_pool_header(["m"], {"CDK_INFERENTIA_POOL": "2"})
        self.assertEqual(args, ["m", flag])
        self.assertEqual(with_pool_header(args, {"CDK_INFERENTIA_POOL": "2"}), args)
        self.assertEqual(with_pool_header(["m"], {}), ["m"])
        self.assertEqual(with_pool_header(["m"], {"CDK_INFERENTIA_POOL": "7"}), ["m"])

    def test_a_streamed_answer_names_its_pool_and_keeps_its_body(self):
        # GIVEN a copy of pool 3 WHEN the engine answers THEN the header names the pool, the body is the engine's
        app, _ = engine()
        start, body = call(pool_header.PoolHeaderMiddleware(app, {"CDK_INFERENTIA_POOL": "3"}), path="/invocations", method="POST")
        self.assertEqual(dict(start["headers"])[b"x-amzn-sagemaker-custom-attributes"], b"pool=3")
        self.assertTrue(body.startswith(b"# TYPE vllm"))

    def test_attributes_the_engine_set_are_kept_before_the_pool(self):
        self.assertEqual(pool_header.with_pool([(b"X-Amzn-SageMaker-Custom-Attributes", b"trace=1")], "2"),
                         [(b"X-Amzn-SageMaker-Custom-Attributes", b"trace=1,pool=2")])

    def test_outside_pools_nothing_is_added(self):
        app, _ = engine()
        start, _ = call(pool_header.PoolHeaderMiddleware(app, {}), path="/invocations", method="POST")
        self.assertNotIn(b"x-amzn-sagemaker-custom-attributes", dict(start["headers"]))


if __name__ == "__main__":
    unittest.main()
