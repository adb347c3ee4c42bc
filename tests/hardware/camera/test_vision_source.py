"""Frame sources: a folder, a video file, and a live stream that drops and comes back."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.camera.source import FrameSource, SourceError, describe


def write_video(path: Path, count: int) -> None:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    assert writer.isOpened(), "OpenCV cannot write MJPG video here"
    for i in range(count):
        writer.write(np.full((48, 64, 3), 20 * i, np.uint8))
    writer.release()


def test_specs_are_told_apart(tmp_path: Path) -> None:
    assert describe("0") == "device"
    assert describe("rtsp://10.0.0.5/table7") == "stream"
    assert describe("http://cam.local/video.mjpg") == "stream"
    assert describe(str(tmp_path)) == "folder"
    assert describe(str(tmp_path / "table.mp4")) == "file"


def test_folder_yields_images_in_name_order_and_reports_bad_ones(tmp_path: Path) -> None:
    for i in (2, 0, 1):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), np.full((8, 8, 3), 10 * i, np.uint8))
    (tmp_path / "f3.png").write_bytes(b"not a png")
    states = []
    got = list(FrameSource(str(tmp_path), on_state=lambda s, d: states.append((s, d))))
    assert [int(f[0, 0, 0]) for f in got] == [0, 10, 20]
    assert states and states[0][0] == "skipped" and "f3.png" in states[0][1]


def test_video_file_plays_to_its_end(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    write_video(path, 5)
    assert len(list(FrameSource(str(path)))) == 5


def test_missing_video_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such video file"):
        list(FrameSource(str(tmp_path / "nope.avi")))


def test_dead_stream_is_reported_once_and_recovered(tmp_path: Path) -> None:
    """The stream is dead at first (nothing there), comes up, ends (drops), never returns."""
    path = tmp_path / "stream.avi"
    states: list[str] = []
    waits: list[float] = []

    def wait(seconds: float) -> None:
        waits.append(seconds)
        if len(waits) == 3:  # the camera comes up after the third retry
            write_video(path, 4)
        if len(waits) == 4:  # ... and is unplugged once it has played
            path.unlink()

    source = FrameSource(str(path), kind="stream", on_state=lambda s, d: states.append(s),
                         sleep=wait, retry_first=0.01, max_retries=6)
    frames = list(source)
    assert len(frames) == 4
    assert states == ["lost", "back", "lost", "gave_up"]  # once per change, not per retry
    assert waits[:3] == [0.01, 0.02, 0.04] and waits[3] == 0.01  # backoff resets when back
