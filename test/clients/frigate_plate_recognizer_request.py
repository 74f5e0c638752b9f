"""The request frigate_plate_recognizer sends to CodeProject.AI's ALPR, and how it reads the answer.

Mirrors `recognize_with_code_project` in frigate_plate_recognizer/recognition.py of
ljmerza/frigate_plate_recognizer (commit 20987d9a2afe): `session.post(api_url, files={"upload": image})`
with the Frigate snapshot's JPEG bytes — one multipart part named `upload`, its filename `upload`
(requests names a bytes value after its field) and no Content-Type of its own; no key, no other
field (the configured `code_project.api_url` is the whole address, e.g. http://host:32168/v1/image/alpr).
`raise_for_status()`: any 4xx/5xx is a failed read. Then it reads `predictions` (none or empty: "No
plates found"), takes `predictions[0]` as the plate — its `plate` and `confidence` — and, to match
watched plates, looks at every later prediction's `plate` and `confidence` too.

Usage: frigate_plate_recognizer_request.py API_URL IMAGE_PATH
Prints {"status", "json", "plate", "score", "candidates": [[plate, confidence], ...]}.
"""
import json
import sys

import requests


def main():
    api_url, image_path = sys.argv[1:3]
    with open(image_path, "rb") as snapshot:
        image = snapshot.read()
    response = requests.Session().post(api_url, files={"upload": image})
    result = {"status": response.status_code, "json": None, "plate": None, "score": None, "candidates": []}
    try:
        response.raise_for_status()
    except requests.exceptions.RequestException:
        print(json.dumps(result))
        return
    payload = response.json()
    result["json"] = payload
    predictions = payload.get("predictions") or []
    if predictions:
        result["plate"] = predictions[0].get("plate")
        result["score"] = predictions[0].get("confidence")
        result["candidates"] = [[p.get("plate") or p.get("candidate"), p.get("confidence")] for p in predictions[1:]]
    print(json.dumps(result))


main()
