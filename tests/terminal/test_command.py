"""``lumin play`` as a command: its options, and a clear refusal when no server answers."""

from __future__ import annotations

from click.testing import CliRunner

from clients.terminal.app import LuminApp
from lumin.cli import main
from tests.deploy.processes import free_port


def test_lumin_play_is_a_command_with_its_options() -> None:
    result = CliRunner().invoke(main, ["play", "--help"])
    assert result.exit_code == 0
    assert "--name" in result.output and "--token" in result.output


async def test_no_server_at_the_url_ends_the_app_with_the_reason() -> None:
    url = f"ws://127.0.0.1:{free_port()}/ws"
    app = LuminApp(url, "Ada")
    async with app.run_test(size=(80, 24)):
        pass
    assert app.return_code == 1
    assert app.failure is not None and f"Cannot reach a Lumin server at {url}" in app.failure
