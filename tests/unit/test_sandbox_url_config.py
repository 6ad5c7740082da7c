"""`sandbox.url` in the train config: accepted, kept out of the local SandboxConfig, picks RemoteSandbox."""

from leap.trainer.config import load_config


def test_sandbox_url_key(monkeypatch):
    cfg = load_config(None, ["model.path=/nonexistent", "sandbox.url=http://127.0.0.1:9", "sandbox.workers=3"])
    assert cfg.sandbox.url == "http://127.0.0.1:9"
    local = cfg.sandbox.for_rollout(cfg.rollout)
    assert local.workers == 3 and not hasattr(local, "url")
    assert load_config(None, ["model.path=/nonexistent"]).sandbox.url is None


def test_trainer_picks_remote_sandbox_when_url_set():
    from leap.sandbox import RemoteSandbox
    from leap.sandbox.judge.verdict import Verdict
    from leap.tasks.suite import get_builtin
    from leap.trainer.rollouts import Rollouts

    cfg = load_config(None, ["model.path=/nonexistent", "sandbox.url=http://127.0.0.1:9"])
    r = Rollouts.__new__(Rollouts)  # only the sandbox choice is under test, not the model
    r.cfg, r.verifier, r.sandbox, r.backend = cfg, None, None, None
    with r:
        assert isinstance(r.sandbox, RemoteSandbox)
        r.sandbox.retries = 1
        v = r.verifier([(get_builtin("relu_fp32"), "x = 1")])[0]
        assert isinstance(v, Verdict) and v.status == "sandbox_error"  # nothing listens on port 9
