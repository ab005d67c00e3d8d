"""The image recipe: what the Dockerfile copies exists, and the entrypoint starts the server (no Docker engine here)."""
import os
import re
import subprocess
import unittest

from .support import BASE_ENV, REPO, clean_environ

SERVING = os.path.join(REPO, "serving")


class ImageRecipe(unittest.TestCase):
    def test_every_file_the_dockerfile_copies_exists_and_every_server_module_is_copied(self):
        with open(os.path.join(SERVING, "Dockerfile")) as dockerfile:
            copies = [line.split()[1:-1] for line in dockerfile if line.startswith("COPY ")]
        sources = [s for sources in copies for s in sources if not s.startswith("--")]
        for source in sources:
            self.assertTrue(os.path.isfile(os.path.join(SERVING, source)), source)
        modules = {f for f in os.listdir(SERVING) if f.endswith(".py")}
        self.assertEqual(modules - set(sources), set())

    def test_the_base_image_has_no_default_so_it_is_always_pinned_by_the_caller(self):
        with open(os.path.join(SERVING, "Dockerfile")) as dockerfile:
            text = dockerfile.read()
        self.assertRegex(text, re.compile(r"^ARG BASE_IMAGE$", re.M))
        self.assertRegex(text, re.compile(r"^FROM \$\{BASE_IMAGE\}$", re.M))

    def test_the_entrypoint_runs_the_server_for_serve_as_sagemaker_starts_it(self):
        # A bad environment makes the server exit at once with its own message: proof the entrypoint reached it.
        env = {**clean_environ(), **BASE_ENV, "MODEL_SERVER_MAX_BATCH_SIZE": "zero", "PYTHONPATH": REPO, "PATH": f"/usr/bin:{os.environ.get('PATH', '')}"}
        result = subprocess.run(
            [os.path.join(SERVING, "entrypoint.sh"), "serve"], env=env, capture_output=True, text=True, timeout=30
        )
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("MODEL_SERVER_MAX_BATCH_SIZE='zero' is not valid", result.stderr)
