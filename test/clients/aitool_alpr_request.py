"""The request AITool sends to CodeProject.AI's ALPR (its "CodeProject_AI_Plate" server), byte for byte.

AITool (bi-aidetection, C#) posts every CodeProject.AI and DeepStack route through one provider:
src/UI/AIProviders/DeepStackCompatibleProvider.cs of PhillipDiCarlo/bi-aidetection (commit
432ae86015bd), whose URL types map CodeProject_AI_Plate (http://127.0.0.1:32168/v1/image/alpr) to it.
It builds a .NET `MultipartFormDataContent` — the boundary a GUID, quoted in the Content-Type
header — and adds:
  - `request.Add(new StreamContent(image), "image", fileName)`: the photo in a part named `image`
    (not `upload`), its disposition as .NET writes it — `form-data; name=image; filename=X;
    filename*=utf-8''X`, names unquoted — and no Content-Type of its own;
  - only when a lower threshold is set, `min_confidence` as a StringContent (`text/plain;
    charset=utf-8`), a 0–1 number written with a period.
No key. It reads the JSON whatever the status: `success` and `error` (false or an error: a failure,
its `error` shown), `message`, `predictions[]` with `label`, `confidence`, `x_min`, `y_min`, `x_max`,
`y_max` (the plate's text only in `label`, as CodeProject.AI writes it: "Plate: X"), and a top-level
`label` with `confidence` as a scene. A non-2xx status is a failure, with `error` when there is one.

The bytes are built here as .NET would send them (http.client: no library reshapes the form).
Usage: aitool_alpr_request.py API_URL IMAGE_PATH [MIN_CONFIDENCE]
Prints {"status", "json"}.
"""
import http.client
import json
import os
import sys
import urllib.parse
import uuid


def main():
    api_url, image_path = sys.argv[1:3]
    min_confidence = sys.argv[3] if len(sys.argv) > 3 else None
    file_name = os.path.basename(image_path)
    with open(image_path, "rb") as image:
        image_bytes = image.read()
    boundary = str(uuid.uuid4())
    parts = [
        (f"--{boundary}\r\nContent-Disposition: form-data; name=image; filename={file_name}; filename*=utf-8''{urllib.parse.quote(file_name)}\r\n\r\n").encode() + image_bytes + b"\r\n"
    ]
    if min_confidence is not None:
        parts.append(f"--{boundary}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Disposition: form-data; name=min_confidence\r\n\r\n{min_confidence}\r\n".encode())
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    url = urllib.parse.urlsplit(api_url)
    connection = http.client.HTTPConnection(url.hostname, url.port or 80, timeout=30)
    connection.request("POST", url.path + (f"?{url.query}" if url.query else ""), body=body, headers={"Content-Type": f'multipart/form-data; boundary="{boundary}"', "Content-Length": str(len(body))})
    response = connection.getresponse()
    text = response.read().decode("utf-8")
    print(json.dumps({"status": response.status, "json": json.loads(text) if text else None}))


main()
