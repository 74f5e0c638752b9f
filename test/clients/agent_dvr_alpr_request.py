"""The request Agent DVR is configured to send to CodeProject.AI's ALPR, as far as public material shows it.

Agent DVR (iSpyConnect) is closed source: its CodeProject.AI client is not public (its public
repository, ispysoftware/AgentDVR-Plugins, holds plugins only), so this is not read from its code. Its
settings name a CodeProject.AI server (host and port, default 32168) and "License Plate Recognition"
among the server's modules; what reaches the server is then CodeProject.AI's documented form for
`POST /v1/image/alpr` (the same as `/v1/vision/alpr`): multipart/form-data with the image in a
part named `upload`, no key. What it reads back is assumed to be CodeProject.AI's documented
answer: `success`, `predictions[]` with `plate`, `label`, `confidence`, `x_min`, `y_min`, `x_max`,
`y_max`. A route test should therefore hold the server to CodeProject.AI's documented shape, and this
script should be replaced by a capture of Agent DVR's real request when one is available.

Usage: agent_dvr_alpr_request.py API_URL IMAGE_PATH
Prints {"status", "json"}.
"""
import json
import os
import sys

import requests


def main():
    api_url, image_path = sys.argv[1:3]
    with open(image_path, "rb") as image:
        response = requests.post(api_url, files={"upload": (os.path.basename(image_path), image, "image/jpeg")}, timeout=30)
    print(json.dumps({"status": response.status_code, "json": response.json()}))


main()
