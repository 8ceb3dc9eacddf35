import type { FrameColour } from "@tonus/hrv";

/** Side of the square the frame is drawn into before averaging; small keeps each frame cheap. */
const SAMPLE_SIZE = 32;

/** Mean red, green and blue of RGBA pixels (the canvas `ImageData` layout). */
export function meanColour(rgba: ArrayLike<number>): FrameColour {
  let r = 0;
  let g = 0;
  let b = 0;
  const pixels = Math.floor(rgba.length / 4);
  for (let i = 0; i < pixels * 4; i += 4) {
    r += rgba[i] ?? 0;
    g += rgba[i + 1] ?? 0;
    b += rgba[i + 2] ?? 0;
  }
  if (pixels === 0) return { r: 0, g: 0, b: 0 };
  return { r: r / pixels, g: g / pixels, b: b / pixels };
}

export type CameraFrameListener = (colour: FrameColour, timeMs: number) => void;

/** Why the camera could not start; the page says so in the person's language. */
export type CameraErrorCode = "unsupported" | "denied" | "not_found" | "failed";

export class CameraError extends Error {
  readonly code: CameraErrorCode;
  constructor(code: CameraErrorCode, message?: string) {
    super(message ?? code);
    this.name = "CameraError";
    this.code = code;
  }
}

/** A source of per-frame colours: the rear camera in the browser, synthetic frames in tests. */
export type CameraSource = {
  /** Starts delivering frames; resolves with whether the torch could be switched on. */
  start(onFrame: CameraFrameListener): Promise<{ hasTorch: boolean }>;
  stop(): void;
};

type VideoWithFrameCallback = HTMLVideoElement & {
  requestVideoFrameCallback?: (
    callback: (now: number, metadata: { mediaTime: number; captureTime?: number }) => void,
  ) => number;
  cancelVideoFrameCallback?: (handle: number) => void;
};

function toCameraError(error: unknown): CameraError {
  const name = error instanceof Error ? error.name : "";
  if (name === "NotAllowedError" || name === "SecurityError") return new CameraError("denied");
  if (name === "NotFoundError" || name === "OverconstrainedError") return new CameraError("not_found");
  return new CameraError("failed", error instanceof Error ? error.message : String(error));
}

/** Switches the torch on where the browser lets us (Chrome on Android); elsewhere it stays off. */
async function tryTorch(track: MediaStreamTrack): Promise<boolean> {
  const capabilities = (track.getCapabilities?.() ?? {}) as { torch?: boolean };
  if (!capabilities.torch) return false;
  try {
    await track.applyConstraints({ advanced: [{ torch: true } as MediaTrackConstraintSet] });
    return true;
  } catch {
    return false;
  }
}

/**
 * The rear camera through getUserMedia: each frame is drawn into a small canvas and averaged; frame
 * times come from `requestVideoFrameCallback` (the frame's own media time) where available, else
 * from animation frames whenever the video shows a new frame.
 */
export function createBrowserCamera(video: HTMLVideoElement): CameraSource {
  let stream: MediaStream | null = null;
  let stopped = false;
  let handle = 0;
  const frameVideo = video as VideoWithFrameCallback;

  function stopLoop(): void {
    if (frameVideo.cancelVideoFrameCallback) frameVideo.cancelVideoFrameCallback(handle);
    else cancelAnimationFrame(handle);
  }

  return {
    async start(onFrame) {
      stopped = false;
      if (!navigator.mediaDevices?.getUserMedia) throw new CameraError("unsupported");
      try {
        stream = await navigator.mediaDevices.getUserMedia({
          audio: false,
          video: {
            facingMode: { ideal: "environment" },
            width: { ideal: 64 },
            height: { ideal: 48 },
            frameRate: { ideal: 30 },
          },
        });
      } catch (error) {
        throw toCameraError(error);
      }
      const track = stream.getVideoTracks()[0];
      const hasTorch = track ? await tryTorch(track) : false;
      video.srcObject = stream;
      video.muted = true;
      video.playsInline = true;
      await video.play().catch(() => undefined);
      const canvas = document.createElement("canvas");
      canvas.width = SAMPLE_SIZE;
      canvas.height = SAMPLE_SIZE;
      const context = canvas.getContext("2d", { willReadFrequently: true });
      if (!context) throw new CameraError("failed", "no 2D canvas");

      const sample = (timeMs: number) => {
        if (video.videoWidth === 0) return;
        // The centre of the frame: the fingertip covers it first, the edges may catch stray light.
        const sw = video.videoWidth * 0.6;
        const sh = video.videoHeight * 0.6;
        context.drawImage(
          video,
          (video.videoWidth - sw) / 2,
          (video.videoHeight - sh) / 2,
          sw,
          sh,
          0,
          0,
          SAMPLE_SIZE,
          SAMPLE_SIZE,
        );
        onFrame(meanColour(context.getImageData(0, 0, SAMPLE_SIZE, SAMPLE_SIZE).data), timeMs);
      };

      if (frameVideo.requestVideoFrameCallback) {
        const onVideoFrame = (_now: number, metadata: { mediaTime: number; captureTime?: number }) => {
          if (stopped) return;
          // The capture time when the camera gives one, else the frame's own media time: never the
          // callback time, which carries the page's rendering jitter.
          sample(metadata.captureTime ?? metadata.mediaTime * 1000);
          handle = frameVideo.requestVideoFrameCallback?.(onVideoFrame) ?? 0;
        };
        handle = frameVideo.requestVideoFrameCallback(onVideoFrame);
      } else {
        let lastMediaTime = -1;
        const onAnimationFrame = (now: number) => {
          if (stopped) return;
          if (video.currentTime !== lastMediaTime) {
            lastMediaTime = video.currentTime;
            sample(now);
          }
          handle = requestAnimationFrame(onAnimationFrame);
        };
        handle = requestAnimationFrame(onAnimationFrame);
      }
      return { hasTorch };
    },
    stop() {
      stopped = true;
      stopLoop();
      for (const track of stream?.getTracks() ?? []) track.stop();
      stream = null;
      video.srcObject = null;
    },
  };
}
