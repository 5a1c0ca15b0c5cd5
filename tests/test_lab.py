"""Interactive use, tested as a reader meets it: JupyterLab opens a paired ``.py`` chapter as a
notebook and runs it in the book's kernel.

A JupyterLab server (this environment's, as ``make lab`` starts it) serves a copy of one chapter
on a free local port; headless Chromium opens the ``.py`` (jupytext shows it as a notebook),
runs every cell through JupyterLab's own command, and the test reads the notebook's model in
the page (JupyterLab renders only the cells in view): every code cell ran, no cell raised, and
the chapter printed its claims. The copy keeps the committed files safe from JupyterLab's autosave.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from icml26.pipeline import browser
from icml26.pipeline.notebooks import NOTEBOOKS, ROOT

pytestmark = pytest.mark.lab

CHAPTER = "09-t3-unlearning"  # the quickest chapter to run

_STATE_JS = """
const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
if (!w || !w.content || !w.content.model || !w.context || !w.context.isReady) return {cells: 0};
const cells = [...w.content.model.cells].filter(c => c.type === 'code').map(c => c.toJSON());
const kernel = w.sessionContext.session && w.sessionContext.session.kernel;
const outs = cells.flatMap(c => c.outputs || []);
const text = o => [].concat(o.text || (o.data && o.data['text/plain']) || []).join('');
return {
  cells: cells.length,
  done: cells.filter(c => c.execution_count !== null).length,
  busy: !kernel || kernel.status !== 'idle',
  errors: outs.filter(o => o.output_type === 'error').map(o => o.ename + ': ' + o.evalue),
  text: outs.map(text).join('\\n'),
};
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(url: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"JupyterLab did not answer at {url} within {seconds:.0f} s")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    if browser.available() is None:
        pytest.fail("chromium and chromedriver are needed (make test installs them)")
    root = tmp_path_factory.mktemp("lab")
    (root / "notebooks").mkdir()
    shutil.copy(NOTEBOOKS / f"{CHAPTER}.py", root / "notebooks")
    shutil.copy(ROOT / "jupytext.toml", root)
    home = tmp_path_factory.mktemp("home")
    settings = home / "lab-settings" / "@jupyterlab" / "docmanager-extension"
    settings.mkdir(parents=True)
    # open a chapter's .py as a notebook, as a reader would choose "Open With → Jupytext Notebook"
    (settings / "plugin.jupyterlab-settings").write_text(
        json.dumps({"defaultViewers": {"python": "Jupytext Notebook"}})
    )
    port = _free_port()
    env = {**os.environ, "HOME": str(home), "JUPYTER_CONFIG_DIR": str(home / "config")}
    env.pop("ICML26_PROGRESS", None)
    cmd = [
        str(Path(sys.executable).with_name("jupyter")),
        "lab",
        "--no-browser",
        f"--port={port}",
        "--ServerApp.ip=127.0.0.1",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        "--ServerApp.disable_check_xsrf=True",
        f"--ServerApp.root_dir={root}",
        f"--LabApp.user_settings_dir={home / 'lab-settings'}",
        f"--LabApp.workspaces_dir={home / 'workspaces'}",
        "--LabApp.expose_app_in_browser=True",
        "--allow-root",
    ]
    server = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait(f"http://127.0.0.1:{port}/api/status", 90)
        yield f"http://127.0.0.1:{port}", root
    finally:
        server.terminate()
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()


def test_a_paired_chapter_opens_as_a_notebook_and_runs_in_jupyterlab(lab):
    import nbformat

    url, _ = lab
    with browser.chromium() as driver:
        driver.get(f"{url}/lab/tree/notebooks/{CHAPTER}.py")
        deadline = time.monotonic() + 120
        state = {"cells": 0}
        while time.monotonic() < deadline and state["cells"] == 0:
            time.sleep(1)
            state = driver.execute_script(_STATE_JS)
        assert state["cells"] > 5, "the .py did not open as a notebook"
        ready = driver.execute_script(
            "return window.jupyterapp && window.jupyterapp.commands.hasCommand"
            "('notebook:run-all-cells')"
        )
        assert ready, "JupyterLab's notebook commands are not available"
        time.sleep(3)  # let the kernel start
        driver.execute_script("window.jupyterapp.commands.execute('notebook:run-all-cells')")
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            time.sleep(2)
            state = driver.execute_script(_STATE_JS)
            if state["errors"] or (state["done"] == state["cells"] and not state["busy"]):
                break
    assert not state["errors"], "a cell raised in JupyterLab:\n" + "\n".join(state["errors"])
    assert state["done"] == state["cells"], f"{state['done']} of {state['cells']} cells ran"
    committed = nbformat.read(NOTEBOOKS / f"{CHAPTER}.ipynb", as_version=4)
    claims = [
        line.split(" — ")[0]
        for cell in committed.cells
        for out in cell.get("outputs", [])
        for line in out.get("text", "").splitlines()
        if line.startswith("CLAIM ")
    ]
    assert claims and all(c in state["text"] for c in claims), "claim lines missing in JupyterLab"
