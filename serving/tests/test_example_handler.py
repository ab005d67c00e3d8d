"""The example's bert handler, unchanged, served by the real server: batches of several requests, padded by the
handler to the compiled batch, each request getting its own rows (frameworks are numpy stand-ins, see frameworks/)."""
import asyncio
import os
import shutil

from .support import REPO, ServerTestCase

EXAMPLE_CODE = os.path.join(REPO, "examples", "bert-base-uncased", "model", "code")
FRAMEWORKS = os.pathsep.join(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), d) for d in ("frameworks", "stand_in_common")
)


class ExampleHandler(ServerTestCase):
    async def test_the_bert_example_serves_batched_requests_each_with_its_own_rows(self):
        # GIVEN the example's model directory: its handler and a (stand-in) compiled model.pt for batch 8
        server = await self.example_server()
        # WHEN requests of one to three sentences arrive together
        requests = [[f"s{r}" + "x" * k for k in range(1 + r % 3)] for r in range(12)]
        replies = await asyncio.gather(*(server.invoke(self.session, sentences) for sentences in requests))
        # THEN each request gets one row per sentence, its own (the stand-in answers a sentence's length), in order
        for sentences, (status, body, _) in zip(requests, replies):
            self.assertEqual(status, 200, body)
            self.assertEqual([row[0] for row in body["outputs"]], [float(len(s)) for s in sentences])

    async def test_a_single_sentence_request_is_padded_to_the_compiled_batch(self):
        server = await self.example_server()
        status, body, _ = await server.invoke(self.session, ["hello"])
        self.assertEqual((status, [row[0] for row in body["outputs"]]), (200, [5.0]))

    async def example_server(self):
        server_dir = self.enterContext(_TemporaryModelDir())
        return await self.server(
            MODEL_SERVER_MODEL_DIR=server_dir,
            MODEL_SERVER_MAX_DELAY_MS=30,
            PYTHONPATH=FRAMEWORKS,
            MODEL_SEQUENCE_LENGTH=16,
        )


class _TemporaryModelDir:
    def __enter__(self):
        import tempfile

        self.dir = tempfile.mkdtemp(prefix="bert-model-")
        shutil.copytree(EXAMPLE_CODE, os.path.join(self.dir, "code"))
        open(os.path.join(self.dir, "model.pt"), "wb").close()
        return self.dir

    def __exit__(self, *_):
        shutil.rmtree(self.dir)
