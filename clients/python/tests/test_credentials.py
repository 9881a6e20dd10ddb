"""The client finds its server and token as the hitl CLI does (cmd/hitl connect, internal/credentials):
an argument, else HITL_URL / HITL_TOKEN, else the credentials file `hitl serve` writes
(HITL_CREDENTIALS, else hitl/credentials.json under $XDG_CONFIG_HOME, else ~/.config), else
http://127.0.0.1:7447. No server: each test runs in a temporary directory with the environment
patched.
"""

import json
import os
import shutil
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

import hitl  # noqa: E402

FILE_URL = "http://127.0.0.1:7999"
FILE_TOKEN = "hitl_from_the_file"


class CredentialsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir, True)
        # A home of its own and nothing of the caller's: no HITL_* variable, no XDG_CONFIG_HOME.
        env = {k: v for k, v in os.environ.items() if not k.startswith("HITL_") and k != "XDG_CONFIG_HOME"}
        env["HOME"] = os.path.join(self.dir, "home")
        patcher = mock.patch.dict(os.environ, env, clear=True)
        patcher.start()
        self.addCleanup(patcher.stop)

    def write(self, path, content):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(content if isinstance(content, str) else json.dumps(content))
        return path

    def explicit_file(self, content={"url": FILE_URL, "token": FILE_TOKEN}):
        path = self.write(os.path.join(self.dir, "elsewhere", "creds.json"), content)
        os.environ["HITL_CREDENTIALS"] = path
        return path

    def client(self, *args, **kwargs):
        c = hitl.Client(*args, **kwargs)
        return c.url, c.token

    def test_the_file_when_the_variables_are_unset(self):
        self.explicit_file()
        self.assertEqual(self.client(), (FILE_URL, FILE_TOKEN))

    def test_empty_variables_count_as_unset(self):
        self.explicit_file()
        os.environ.update(HITL_URL="", HITL_TOKEN="")
        self.assertEqual(self.client(), (FILE_URL, FILE_TOKEN))

    def test_each_variable_before_the_file_field_by_field(self):
        self.explicit_file()
        os.environ["HITL_URL"] = "http://env:1"
        self.assertEqual(self.client(), ("http://env:1", FILE_TOKEN))
        del os.environ["HITL_URL"]
        os.environ["HITL_TOKEN"] = "hitl_env"
        self.assertEqual(self.client(), (FILE_URL, "hitl_env"))
        os.environ["HITL_URL"] = "http://env:1/"
        self.assertEqual(self.client(), ("http://env:1", "hitl_env"))

    def test_arguments_before_everything(self):
        self.explicit_file()
        os.environ.update(HITL_URL="http://env:1", HITL_TOKEN="hitl_env")
        self.assertEqual(self.client("http://arg:2", "hitl_arg"), ("http://arg:2", "hitl_arg"))
        self.assertEqual(self.client("http://arg:2"), ("http://arg:2", "hitl_env"))
        del os.environ["HITL_TOKEN"]
        self.assertEqual(self.client("http://arg:2"), ("http://arg:2", FILE_TOKEN))
        self.assertEqual(self.client(token=""), ("http://env:1", ""))  # "" is a token given: no token

    def test_xdg_config_home(self):
        os.environ["XDG_CONFIG_HOME"] = os.path.join(self.dir, "xdg")
        path = self.write(os.path.join(self.dir, "xdg", "hitl", "credentials.json"), {"url": FILE_URL, "token": FILE_TOKEN})
        if sys.platform in ("darwin", "ios") or os.name == "nt":
            self.skipTest("XDG_CONFIG_HOME is the Unix rule; macOS and Windows have their own directory")
        self.assertEqual(hitl.credentials_path(), path)
        self.assertEqual(self.client(), (FILE_URL, FILE_TOKEN))
        # HITL_CREDENTIALS comes first.
        self.explicit_file({"url": "http://other:3", "token": "hitl_other"})
        self.assertEqual(self.client(), ("http://other:3", "hitl_other"))

    @unittest.skipIf(sys.platform in ("darwin", "ios") or os.name == "nt", "the Unix rule")
    def test_home_config_without_xdg(self):
        for xdg in (None, ""):
            if xdg is not None:
                os.environ["XDG_CONFIG_HOME"] = xdg
            path = os.path.join(self.dir, "home", ".config", "hitl", "credentials.json")
            self.assertEqual(hitl.credentials_path(), path)
        self.write(path, {"url": FILE_URL, "token": FILE_TOKEN})
        self.assertEqual(self.client(), (FILE_URL, FILE_TOKEN))

    @unittest.skipIf(sys.platform in ("darwin", "ios") or os.name == "nt", "the Unix rule")
    def test_no_config_directory(self):
        del os.environ["HOME"]
        with self.assertRaisesRegex(hitl.HitlError, r"set HITL_CREDENTIALS.*neither \$XDG_CONFIG_HOME nor \$HOME"):
            hitl.Client()
        os.environ["XDG_CONFIG_HOME"] = "relative/dir"
        with self.assertRaisesRegex(hitl.HitlError, "XDG_CONFIG_HOME is relative"):
            hitl.Client()
        # Not needed when both variables are set, as the CLI needs no file then.
        os.environ.update(HITL_URL="http://env:1", HITL_TOKEN="hitl_env")
        self.assertEqual(self.client(), ("http://env:1", "hitl_env"))
        # HITL_CREDENTIALS needs no config directory.
        del os.environ["HITL_TOKEN"]
        self.explicit_file()
        self.assertEqual(self.client(), ("http://env:1", FILE_TOKEN))

    def test_macos_directory(self):
        with mock.patch.object(sys, "platform", "darwin"):
            if os.name == "nt":
                self.skipTest("os.name decides first")
            os.environ["XDG_CONFIG_HOME"] = os.path.join(self.dir, "xdg")  # not read on macOS, as by Go
            want = os.path.join(self.dir, "home", "Library", "Application Support", "hitl", "credentials.json")
            self.assertEqual(hitl.credentials_path(), want)

    def test_no_file(self):
        os.environ["HITL_CREDENTIALS"] = os.path.join(self.dir, "none.json")
        self.assertEqual(self.client(), ("http://127.0.0.1:7447", ""))

    def test_the_file_serve_writes_with_an_admin_token_from_the_environment(self):
        self.explicit_file({"url": FILE_URL})  # HITL_ADMIN_TOKEN set: serve saves the URL only
        self.assertEqual(self.client(), (FILE_URL, ""))

    def test_read_as_go_reads_it(self):
        for content, want in [
            ('{"URL": "http://a:1", "Token": "t1", "extra": [1, {"x": null}]}', ("http://a:1", "t1")),
            ('{"url": "http://a:1", "url": "http://b:2"}', ("http://b:2", "")),
            ('{"url": "http://a:1", "URL": null, "token": null}', ("http://a:1", "")),
            ("null", ("http://127.0.0.1:7447", "")),
            ('  {"url": ""}\n', ("http://127.0.0.1:7447", "")),
        ]:
            self.explicit_file(content)
            self.assertEqual(self.client(), want, content)

    def test_a_bad_file_stops_the_client_when_it_is_needed(self):
        for content in ['{"url": ', '{"url": 5}', '["http://a:1"]', '"http://a:1"', '{"url": NaN}', "", '{"token": "a"} x']:
            path = self.explicit_file(content)
            with self.assertRaisesRegex(hitl.HitlError, "is not a hitl credentials file", msg=content) as cm:
                hitl.Client()
            self.assertIn(path, str(cm.exception))
            # Not read when the variables say both.
            os.environ.update(HITL_URL="http://env:1", HITL_TOKEN="hitl_env")
            self.assertEqual(self.client(), ("http://env:1", "hitl_env"))
            del os.environ["HITL_URL"], os.environ["HITL_TOKEN"]
        os.environ["HITL_CREDENTIALS"] = self.dir  # a directory
        with self.assertRaisesRegex(hitl.HitlError, "cannot read the credentials file"):
            hitl.Client()

    def test_module_function_uses_the_file(self):
        self.explicit_file({"url": "http://127.0.0.1:1", "token": FILE_TOKEN})
        seen = []
        with mock.patch.object(hitl.Client, "request_user_input", lambda self, *a, **k: seen.append((self.url, self.token))):
            hitl.request_user_input("ok?")
        self.assertEqual(seen, [("http://127.0.0.1:1", FILE_TOKEN)])


if __name__ == "__main__":
    unittest.main()
