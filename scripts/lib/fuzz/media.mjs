// Fake media: MP4-ish boxes and JPEG-ish segments, valid-looking then corrupted (the E2 probe and
// the thumbnail check parse them).

export function mp4Box(type, payload = Buffer.alloc(0)) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + payload.length, 0);
  head.write(type.padEnd(4).slice(0, 4), 4, "latin1");
  return Buffer.concat([head, payload]);
}

export function fullBox(type, version, rest) {
  return mp4Box(type, Buffer.concat([Buffer.from([version, 0, 0, 0]), rest]));
}

export function mp4ish(rng) {
  const width = rng.pick([160, 320, 1920, 1921, 0, 65535, 1080]);
  const height = rng.pick([90, 180, 1080, 1081, 0, 65535, 1920]);
  const u32 = (n) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n >>> 0);
    return b;
  };
  const avc1 = Buffer.alloc(78);
  avc1.writeUInt16BE(1, 6);
  avc1.writeUInt16BE(width & 0xffff, 24);
  avc1.writeUInt16BE(height & 0xffff, 26);
  const sampleEntry = mp4Box(
    rng.pick(["avc1", "avc1", "hvc1", "mp4v"]),
    Buffer.concat([avc1, mp4Box("avcC", rng.bytes(rng.int(0, 40)))]),
  );
  const stsd = fullBox(
    "stsd",
    0,
    Buffer.concat([u32(rng.pick([1, 1, 0, 0xffffffff])), sampleEntry]),
  );
  const stbl = mp4Box(
    "stbl",
    Buffer.concat([
      stsd,
      fullBox("stts", 0, u32(0)),
      fullBox("stsz", 0, Buffer.concat([u32(0), u32(0)])),
    ]),
  );
  const hdlr = fullBox(
    "hdlr",
    0,
    Buffer.concat([
      u32(0),
      Buffer.from(rng.pick(["vide", "soun", "text"])),
      Buffer.alloc(12),
      Buffer.from("x\0"),
    ]),
  );
  const mdhd = fullBox(
    "mdhd",
    0,
    Buffer.concat([
      u32(0),
      u32(0),
      u32(rng.pick([1000, 0, 0xffffffff])),
      u32(rng.pick([2000, 0, 0xffffffff])),
      Buffer.alloc(4),
    ]),
  );
  const trak = mp4Box(
    "trak",
    Buffer.concat([
      fullBox("tkhd", 0, Buffer.alloc(80)),
      mp4Box("mdia", Buffer.concat([mdhd, hdlr, mp4Box("minf", stbl)])),
    ]),
  );
  const mvhd = fullBox(
    "mvhd",
    0,
    Buffer.concat([
      u32(0),
      u32(0),
      u32(rng.pick([1000, 0])),
      u32(rng.pick([2000, 0, 0xffffffff])),
      Buffer.alloc(80),
    ]),
  );
  let moov = mp4Box("moov", Buffer.concat([mvhd, trak]));
  const ftyp = mp4Box("ftyp", Buffer.from("isom\0\0\0\x01isomavc1", "latin1"));
  const mdat = mp4Box("mdat", rng.bytes(rng.pick([16, 1000, 70_000])));
  const corruption = rng.weighted([
    [3, "none"],
    [2, "size0"],
    [2, "size1-huge"],
    [2, "size-small"],
    [2, "size-past-end"],
    [1, "truncate"],
    [1, "deep"],
    [1, "random"],
    [1, "moov-last"],
    [1, "empty"],
  ]);
  let parts = [ftyp, moov, mdat];
  switch (corruption) {
    case "size0":
      moov.writeUInt32BE(0, 0);
      break;
    case "size1-huge": {
      // 64-bit largesize: 2^63 - 1
      const big = Buffer.alloc(16);
      big.writeUInt32BE(1, 0);
      big.write("moov", 4, "latin1");
      big.writeBigUInt64BE(0x7fffffffffffffffn, 8);
      parts = [ftyp, big, moov.subarray(8)];
      break;
    }
    case "size-small":
      moov.writeUInt32BE(rng.pick([1, 4, 7]), 0);
      break;
    case "size-past-end":
      moov.writeUInt32BE(0xfffffff0, 0);
      break;
    case "truncate":
      parts = [Buffer.concat(parts).subarray(0, rng.int(1, ftyp.length + moov.length))];
      break;
    case "deep": {
      let inner = mp4Box("free");
      for (let i = 0; i < rng.pick([100, 1000]); i++)
        inner = mp4Box(rng.pick(["moov", "trak", "mdia", "minf", "stbl"]), inner);
      moov = inner;
      parts = [ftyp, moov];
      break;
    }
    case "random":
      parts = [rng.bytes(rng.int(1, 5000))];
      break;
    case "moov-last":
      parts = [ftyp, mdat, moov];
      break;
    case "empty":
      parts = [Buffer.alloc(0)];
      break;
  }
  return { bytes: Buffer.concat(parts), kind: `mp4:${corruption}` };
}

export function jpegish(rng) {
  const [width, height] = rng.chance(0.6)
    ? [1920, 1080]
    : [rng.pick([1920, 1280, 0, 65535, 1921, 1080]), rng.pick([1080, 720, 0, 65535, 1079, 1920])];
  const seg = (marker, payload) => {
    const b = Buffer.alloc(4);
    b[0] = 0xff;
    b[1] = marker;
    b.writeUInt16BE((payload.length + 2) & 0xffff, 2);
    return Buffer.concat([b, payload]);
  };
  const sof = Buffer.alloc(15);
  sof[0] = 8;
  sof.writeUInt16BE(height, 1);
  sof.writeUInt16BE(width, 3);
  sof[5] = 3;
  const app0 = Buffer.from("JFIF\0\x01\x01\0\0\x01\0\x01\0\0", "latin1");
  const corruption = rng.weighted([
    [3, "none"],
    [1, "len0"],
    [1, "len1"],
    [1, "truncate"],
    [1, "no-sof"],
    [1, "random"],
    [1, "huge-app"],
    [1, "many-markers"],
  ]);
  let parts = [
    Buffer.from([0xff, 0xd8]),
    seg(0xe0, app0),
    seg(0xc0, sof),
    seg(0xda, Buffer.alloc(10)),
    rng.bytes(200),
    Buffer.from([0xff, 0xd9]),
  ];
  switch (corruption) {
    case "len0":
      parts[2] = Buffer.from([0xff, 0xc0, 0, 0]);
      break;
    case "len1":
      parts[1] = Buffer.from([0xff, 0xe0, 0, 1]);
      break;
    case "truncate":
      parts = [Buffer.concat(parts).subarray(0, rng.int(1, 30))];
      break;
    case "no-sof":
      parts.splice(2, 1);
      break;
    case "random":
      parts = [rng.bytes(rng.int(0, 3000))];
      break;
    case "huge-app":
      parts[1] = Buffer.concat([Buffer.from([0xff, 0xe1, 0xff, 0xff]), rng.bytes(100)]);
      break;
    case "many-markers":
      parts.splice(1, 0, Buffer.alloc(20_000, 0xff));
      break;
  }
  return { bytes: Buffer.concat(parts), kind: `jpeg:${corruption}` };
}
