"""The request Frigate's `deepstack` detector sends, and how it reads the answer.

Mirrors frigate/detectors/plugins/deepstack.py of blakeblackshear/frigate (commit 03222bff1e5b):
`detect_raw` JPEG-encodes the frame, posts `requests.post(api_url, data={"api_key": api_key},
files={"image": image_bytes}, timeout=api_timeout)`, and turns `predictions` into rows of
[label index, confidence, y_min/h, x_min/w, y_max/h, x_max/w], stopping at the first prediction
below 0.4 confidence or with a label it does not know ("truck" counts as "car"). Frigate sends no
`min_confidence`: the server's default (DeepStack's 0.4) applies.

Here the frame is already a JPEG file (no PIL needed); its size comes on the command line.
Usage: frigate_deepstack_request.py API_URL API_KEY IMAGE_PATH WIDTH HEIGHT
Prints {"status", "json", "detections": [[label, confidence, y_min, x_min, y_max, x_max], ...]}.
"""
import json
import sys

import requests

LABELS = {0: "person", 1: "bicycle", 2: "car", 16: "dog"}  # the part of Frigate's COCO label map this photo needs


def get_label_index(label_value):
    if label_value.lower() == "truck":
        label_value = "car"
    for index, value in LABELS.items():
        if value == label_value.lower():
            return index
    return -1


def main():
    api_url, api_key, image_path, width, height = sys.argv[1:6]
    w, h = int(width), int(height)
    with open(image_path, "rb") as image:
        image_bytes = image.read()
    response = requests.post(api_url, data={"api_key": api_key}, files={"image": image_bytes}, timeout=10.0)
    response_json = response.json()
    detections = []
    for detection in response_json.get("predictions") or []:
        if detection["confidence"] < 0.4:
            break
        label = get_label_index(detection["label"])
        if label < 0:
            break
        detections.append([label, float(detection["confidence"]), detection["y_min"] / h, detection["x_min"] / w, detection["y_max"] / h, detection["x_max"] / w])
    print(json.dumps({"status": response.status_code, "json": response_json, "detections": detections}))


main()
