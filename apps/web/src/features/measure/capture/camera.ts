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

/** Chromium's `MediaStreamTrackProcessor` (mediacapture-transform); not in TypeScript's DOM types yet. */
type TrackProcessorConstructor = new (init: {
  track: MediaStreamTrack;
  maxBufferSize?: number;
}) => { readable: ReadableStream<VideoFrame> };

/**
 * Frames queued while the page is busy, at most (≈ 1/3 s): they are read late but keep their capture
 * times. Frames the browser drops before this queue are gone either way (measured: a larger queue does
 * not keep more of them).
 */
const FRAME_QUEUE = 10;

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
 * The rear camera through getUserMedia: each frame's centre is drawn into a small canvas and averaged.
 * Where the browser has `MediaStreamTrackProcessor` (Chromium, Chrome on Android) every frame is read
 * in order with its capture time (`VideoFrame.timestamp`), and frames that arrive while the page is
 * busy wait in a short queue instead of being skipped; elsewhere `requestVideoFrameCallback` gives the
 * frames the page shows with their capture (or media) time; without either, animation frames sample
 * the video whenever it shows a new frame.
 */
export function createBrowserCamera(video: HTMLVideoElement): CameraSource {
  let stream: MediaStream | null = null;
  let stopped = false;
  let handle = 0;
  let reader: ReadableStreamDefaultReader<VideoFrame> | null = null;
  const frameVideo = video as VideoWithFrameCallback;

  function stopLoop(): void {
    void reader?.cancel().catch(() => undefined);
    reader = null;
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

      // The centre of the frame: the fingertip covers it first, the edges may catch stray light.
      const sample = (source: CanvasImageSource, width: number, height: number, timeMs: number) => {
        if (width === 0) return;
        const sw = width * 0.6;
        const sh = height * 0.6;
        context.drawImage(
          source,
          (width - sw) / 2,
          (height - sh) / 2,
          sw,
          sh,
          0,
          0,
          SAMPLE_SIZE,
          SAMPLE_SIZE,
        );
        onFrame(meanColour(context.getImageData(0, 0, SAMPLE_SIZE, SAMPLE_SIZE).data), timeMs);
      };
      const sampleVideo = (timeMs: number) => sample(video, video.videoWidth, video.videoHeight, timeMs);

      const Processor = (globalThis as { MediaStreamTrackProcessor?: TrackProcessorConstructor })
        .MediaStreamTrackProcessor;
      if (Processor && track) {
        const frames = new Processor({ track, maxBufferSize: FRAME_QUEUE }).readable.getReader();
        reader = frames;
        void (async () => {
          for (;;) {
            const { value: frame, done } = await frames
              .read()
              .catch(() => ({ value: undefined, done: true }));
            if (done || !frame) return;
            try {
              // The capture time in µs on the camera's own clock: no page jitter in it.
              if (!stopped) sample(frame, frame.displayWidth, frame.displayHeight, frame.timestamp / 1000);
            } finally {
              frame.close();
            }
          }
        })();
      } else if (frameVideo.requestVideoFrameCallback) {
        const onVideoFrame = (_now: number, metadata: { mediaTime: number; captureTime?: number }) => {
          if (stopped) return;
          // The capture time when the camera gives one, else the frame's own media time: never the
          // callback time, which carries the page's rendering jitter.
          sampleVideo(metadata.captureTime ?? metadata.mediaTime * 1000);
          handle = frameVideo.requestVideoFrameCallback?.(onVideoFrame) ?? 0;
        };
        handle = frameVideo.requestVideoFrameCallback(onVideoFrame);
      } else {
        let lastMediaTime = -1;
        const onAnimationFrame = (now: number) => {
          if (stopped) return;
          if (video.currentTime !== lastMediaTime) {
            lastMediaTime = video.currentTime;
            sampleVideo(now);
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
