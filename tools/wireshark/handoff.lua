-- Wireshark dissectors for the Handoff simulator's wire (docs/wire.md).
--
--   handoff.beacon   UDP on the discovery port (17820 by default, `handoff device --port`):
--                    the sealed beacon's clear fields. The plaintext needs the account's beacon
--                    key, which Wireshark does not have: `handoff wire decode CAPTURE --account
--                    NAME` opens it.
--   handoff.session  the session frames inside TLS 1.3, once Wireshark decrypts the sessions
--                    with the key log the devices write when SSLKEYLOGFILE is set. Sessions use
--                    ephemeral ports, so the dissector is a heuristic on TLS's decrypted
--                    application data (length u32, version 2, a known type).
--
-- Use:  tshark -X lua_script:tools/wireshark/handoff.lua -o tls.keylog_file:KEYLOG -r CAPTURE -V
-- or copy this file to ~/.local/lib/wireshark/plugins/. Field names follow docs/wire.md.

local discovery_port = 17820
local maximum_frame_length = 8388608
local protocol_version = 2

-- Beacons ------------------------------------------------------------------------------------

local beacon = Proto("handoff.beacon", "Handoff simulator beacon")
local bf = {
    version = ProtoField.uint8("handoff.beacon.version", "version", base.HEX),
    nonce = ProtoField.bytes("handoff.beacon.nonce", "nonce"),
    ciphertext = ProtoField.bytes("handoff.beacon.ciphertext", "ciphertext"),
    tag = ProtoField.bytes("handoff.beacon.tag", "tag"),
}
beacon.fields = { bf.version, bf.nonce, bf.ciphertext, bf.tag }
beacon.prefs.port = Pref.uint("Discovery port", discovery_port, "The UDP port beacons are sent to")

function beacon.dissector(tvb, pinfo, tree)
    local length = tvb:len()
    if length < 1 then return 0 end
    pinfo.cols.protocol = "HANDOFF"
    local subtree = tree:add(beacon, tvb(), "Handoff simulator beacon")
    subtree:add(bf.version, tvb(0, 1))
    if length < 29 then
        subtree:add_expert_info(PI_MALFORMED, PI_ERROR, "shorter than version, nonce and tag (29 bytes)")
        pinfo.cols.info = "Beacon (malformed: " .. length .. " bytes)"
        return length
    end
    subtree:add(bf.nonce, tvb(1, 12))
    subtree:add(bf.ciphertext, tvb(13, length - 29)):append_text(
        " (" .. (length - 29) .. " bytes, AES-256-GCM: open with handoff wire decode)")
    subtree:add(bf.tag, tvb(length - 16, 16))
    local note = length == 128 and "" or " (not the 128 bytes of version 1)"
    pinfo.cols.info = "Beacon v" .. tvb(0, 1):uint() .. ", sealed, " .. length .. " bytes" .. note
    return length
end

local udp_port = DissectorTable.get("udp.port")
udp_port:add(discovery_port, beacon)
function beacon.prefs_changed()
    udp_port:remove(discovery_port, beacon)
    discovery_port = beacon.prefs.port
    udp_port:add(discovery_port, beacon)
end

-- Session frames -----------------------------------------------------------------------------

local session = Proto("handoff.session", "Handoff simulator session")

local frame_names = {
    [1] = "hello", [2] = "payloadRequest", [3] = "payloadResponse", [4] = "payloadError",
    [5] = "continued", [6] = "streamOpen", [7] = "streamAccepted", [8] = "streamRefused",
    [9] = "streamData", [10] = "streamEnd", [11] = "streamFailed", [12] = "lifecycle",
}
local kinds = { [0] = "phone", [1] = "tablet", [2] = "laptop" }
local error_codes = {
    [4608] = "NSUserActivityHandoffFailedError", [4609] = "NSUserActivityConnectionUnavailableError",
    [4610] = "NSUserActivityRemoteApplicationTimedOutError", [4611] = "NSUserActivityHandoffUserInfoTooLargeError",
    [3072] = "NSUserCancelledError",
}
local value_types = { [1] = "string", [2] = "integer", [3] = "number", [4] = "truth value", [5] = "userInfo" }

local sf = {
    length = ProtoField.uint32("handoff.session.length", "length"),
    version = ProtoField.uint8("handoff.session.version", "version"),
    type = ProtoField.uint8("handoff.session.type", "type", base.DEC, frame_names),
    kind = ProtoField.uint8("handoff.session.kind", "kind", base.DEC, kinds),
    name_length = ProtoField.uint8("handoff.session.name_length", "name length"),
    name = ProtoField.string("handoff.session.name", "name", base.UNICODE),
    request_id = ProtoField.uint64("handoff.session.request_id", "request ID"),
    continuation = ProtoField.string("handoff.session.continuation", "continuation identifier"),
    activity_type_hash = ProtoField.bytes("handoff.session.activity_type_hash", "activity type hash"),
    payload = ProtoField.bytes("handoff.session.payload", "payload"),
    error_code = ProtoField.uint16("handoff.session.error_code", "error code", base.DEC, error_codes),
    reason = ProtoField.string("handoff.session.reason", "reason", base.UNICODE),
    activity_identifier = ProtoField.string("handoff.session.activity_identifier", "activity identifier"),
    token = ProtoField.bytes("handoff.session.token", "stream token"),
    data = ProtoField.bytes("handoff.session.data", "stream bytes"),
    dropped = ProtoField.uint32("handoff.session.dropped", "dropped"),
    count = ProtoField.uint16("handoff.session.count", "count"),
    entry = ProtoField.none("handoff.session.entry", "entry"),
    field_count = ProtoField.uint8("handoff.session.field_count", "field count"),
    key = ProtoField.string("handoff.session.key", "key", base.UNICODE),
    value_type = ProtoField.uint8("handoff.session.value_type", "value type", base.DEC, value_types),
    value = ProtoField.string("handoff.session.value", "value", base.UNICODE),
    -- The payload (docs/payload.md): its first fields.
    magic = ProtoField.string("handoff.payload.magic", "magic"),
    payload_version = ProtoField.uint8("handoff.payload.version", "version"),
    flags = ProtoField.uint8("handoff.payload.flags", "flags", base.HEX),
    payload_activity_identifier = ProtoField.string("handoff.payload.activity_identifier", "activityIdentifier"),
    activity_type = ProtoField.string("handoff.payload.activity_type", "activityType", base.UNICODE),
    title = ProtoField.string("handoff.payload.title", "title", base.UNICODE),
}
local field_list = {}
for _, field in pairs(sf) do field_list[#field_list + 1] = field end
session.fields = field_list

local function guid(range)
    -- RFC 4122 UUIDs in network order, shown as text (ProtoField.guid reads Microsoft's
    -- mixed-endian GUID).
    local hex = range:bytes():tohex():lower()
    return hex:sub(1, 8) .. "-" .. hex:sub(9, 12) .. "-" .. hex:sub(13, 16) .. "-" .. hex:sub(17, 20) .. "-"
        .. hex:sub(21, 32)
end

-- An unsigned LEB128 varint at `offset`: value and size, or nil when it runs past `limit`.
local function varint(tvb, offset, limit)
    local value, shift, size = 0, 0, 0
    while offset + size < limit and size < 10 do
        local byte = tvb(offset + size, 1):uint()
        size = size + 1
        value = value + (byte % 128) * (2 ^ shift)
        if byte < 128 then return value, size end
        shift = shift + 7
    end
    return nil
end

local function dissect_payload(tvb, offset, limit, tree)
    if limit - offset < 22 or tvb(offset, 4):string() ~= "HOPL" then return nil end
    tree:add(sf.magic, tvb(offset, 4))
    tree:add(sf.payload_version, tvb(offset + 4, 1))
    local flags = tvb(offset + 5, 1):uint()
    tree:add(sf.flags, tvb(offset + 5, 1))
    tree:add(sf.payload_activity_identifier, tvb(offset + 6, 16), guid(tvb(offset + 6, 16)))
    local at = offset + 22
    local length, size = varint(tvb, at, limit)
    if not length or at + size + length > limit then return nil end
    local activity_type = tvb(at + size, length):string(ENC_UTF_8)
    tree:add(sf.activity_type, tvb(at, size + length), activity_type)
    at = at + size + length
    if flags % 2 == 1 then
        local title_length, title_size = varint(tvb, at, limit)
        if title_length and at + title_size + title_length <= limit then
            tree:add(sf.title, tvb(at, title_size + title_length), tvb(at + title_size, title_length):string(ENC_UTF_8))
        end
    end
    return activity_type
end

local function dissect_lifecycle(tvb, offset, limit, tree)
    if limit - offset < 6 then return "truncated" end
    tree:add(sf.dropped, tvb(offset, 4))
    local count = tvb(offset + 4, 2):uint()
    tree:add(sf.count, tvb(offset + 4, 2))
    local at = offset + 6
    for index = 1, count do
        if at >= limit then return "entry " .. index .. " truncated" end
        local start = at
        local entry = tree:add(sf.entry, tvb(at, 1)):set_text("entry " .. index)
        local fields = tvb(at, 1):uint()
        entry:add(sf.field_count, tvb(at, 1))
        at = at + 1
        local summary = {}
        for _ = 1, fields do
            if at + 1 > limit then return "entry " .. index .. " truncated" end
            local key_length = tvb(at, 1):uint()
            if at + 1 + key_length + 1 > limit then return "entry " .. index .. " truncated" end
            local key = tvb(at + 1, key_length):string(ENC_UTF_8)
            local value_type = tvb(at + 1 + key_length, 1):uint()
            local value_at = at + 2 + key_length
            local value_size, text
            if value_type == 1 then
                if value_at + 2 > limit then return "entry " .. index .. " truncated" end
                local n = tvb(value_at, 2):uint()
                value_size = 2 + n
                if value_at + value_size > limit then return "entry " .. index .. " truncated" end
                text = tvb(value_at + 2, n):string(ENC_UTF_8)
            elseif value_type == 2 then
                value_size = 8
                if value_at + 8 > limit then return "entry " .. index .. " truncated" end
                text = tostring(tvb(value_at, 8):int64())
            elseif value_type == 3 then
                value_size = 8
                if value_at + 8 > limit then return "entry " .. index .. " truncated" end
                text = tostring(tvb(value_at, 8):float())
            elseif value_type == 4 then
                value_size = 1
                if value_at + 1 > limit then return "entry " .. index .. " truncated" end
                text = tvb(value_at, 1):uint() == 1 and "true" or "false"
            elseif value_type == 5 then
                if value_at + 4 > limit then return "entry " .. index .. " truncated" end
                local n = tvb(value_at, 4):uint()
                value_size = 4 + n
                if value_at + value_size > limit then return "entry " .. index .. " truncated" end
                text = n .. " bytes of encoded userInfo"
            else
                return "entry " .. index .. ": unknown value type " .. value_type
            end
            local field = entry:add(sf.key, tvb(at + 1, key_length), key)
            field:add(sf.value_type, tvb(at + 1 + key_length, 1))
            if value_size > 0 then field:add(sf.value, tvb(value_at, value_size), text) end
            field:set_text(key .. ": " .. text)
            if key == "kind" then summary[#summary + 1] = text end
            at = value_at + value_size
        end
        entry:set_len(at - start)
        if #summary > 0 then entry:append_text(" (" .. table.concat(summary, ", ") .. ")") end
    end
    if at ~= limit then return (limit - at) .. " trailing bytes" end
    return nil
end

-- One frame at `offset` whose 4-byte length says `length`; returns a word for the Info column.
local function dissect_frame(tvb, pinfo, tree, offset, length)
    local item = tree:add(session, tvb(offset, 4 + length))
    item:add(sf.length, tvb(offset, 4))
    item:add(sf.version, tvb(offset + 4, 1))
    local type = tvb(offset + 5, 1):uint()
    item:add(sf.type, tvb(offset + 5, 1))
    local name = frame_names[type] or ("unknown type " .. type)
    item:set_text("Handoff session frame: " .. name .. " (" .. length .. " bytes after the length)")
    local body = offset + 6
    local limit = offset + 4 + length
    local size = limit - body
    local summary = name
    local problem = nil
    if type == 1 then
        if size < 2 then
            problem = "truncated hello"
        else
            item:add(sf.kind, tvb(body, 1))
            local n = tvb(body + 1, 1):uint()
            item:add(sf.name_length, tvb(body + 1, 1))
            if 2 + n ~= size then
                problem = "name length " .. n .. " does not fill the body"
            else
                local text = tvb(body + 2, n):string(ENC_UTF_8)
                if n > 0 then item:add(sf.name, tvb(body + 2, n), text) end
                summary = "hello \"" .. text .. "\" (" .. (kinds[tvb(body, 1):uint()] or "unknown kind") .. ")"
            end
        end
    elseif type == 2 then
        if size ~= 31 then
            problem = "a payloadRequest body is 31 bytes, not " .. size
        else
            item:add(sf.request_id, tvb(body, 8))
            item:add(sf.continuation, tvb(body + 8, 16), guid(tvb(body + 8, 16)))
            item:add(sf.activity_type_hash, tvb(body + 24, 7))
            summary = "payloadRequest " .. tostring(tvb(body, 8):uint64())
        end
    elseif type == 3 then
        if size < 8 then
            problem = "truncated payload response"
        else
            item:add(sf.request_id, tvb(body, 8))
            summary = "payloadResponse " .. tostring(tvb(body, 8):uint64())
            if size > 8 then
                local payload = item:add(sf.payload, tvb(body + 8, size - 8))
                local activity_type = dissect_payload(tvb, body + 8, limit, payload)
                if activity_type then summary = summary .. " " .. activity_type end
            end
        end
    elseif type == 4 then
        if size < 10 then
            problem = "truncated payload error"
        else
            item:add(sf.request_id, tvb(body, 8))
            item:add(sf.error_code, tvb(body + 8, 2))
            if size > 10 then item:add(sf.reason, tvb(body + 10, size - 10), tvb(body + 10, size - 10):string(ENC_UTF_8)) end
            summary = "payloadError " .. tostring(tvb(body, 8):uint64()) .. " code " .. tvb(body + 8, 2):uint()
        end
    elseif type == 5 then
        if size ~= 32 then
            problem = "a continued body is 32 bytes, not " .. size
        else
            item:add(sf.activity_identifier, tvb(body, 16), guid(tvb(body, 16)))
            item:add(sf.continuation, tvb(body + 16, 16), guid(tvb(body + 16, 16)))
        end
    elseif type == 6 then
        if size < 1 or size > 64 then problem = "a stream token is 1 to 64 bytes, not " .. size
        else item:add(sf.token, tvb(body, size)) end
    elseif type == 7 or type == 10 then
        if size ~= 0 then problem = size .. " trailing bytes" end
    elseif type == 8 or type == 11 then
        if size > 1024 then problem = "reason longer than 1024 bytes" end
        if size > 0 then item:add(sf.reason, tvb(body, size), tvb(body, size):string(ENC_UTF_8)) end
    elseif type == 9 then
        if size > 0 then item:add(sf.data, tvb(body, size)) end
        summary = "streamData " .. size .. " bytes"
    elseif type == 12 then
        problem = dissect_lifecycle(tvb, body, limit, item)
    else
        problem = "unknown type " .. type
    end
    if problem then item:add_expert_info(PI_MALFORMED, PI_ERROR, problem) end
    return summary
end

-- Frames in `tvb` from its start; asks TLS for more bytes when a frame continues in the next record.
local function dissect_frames(tvb, pinfo, tree)
    local total = tvb:len()
    local offset = 0
    local summaries = {}
    while offset < total do
        if total - offset < 6 then
            pinfo.desegment_offset = offset
            pinfo.desegment_len = DESEGMENT_ONE_MORE_SEGMENT
            break
        end
        local length = tvb(offset, 4):uint()
        if length < 2 or length > maximum_frame_length then
            tree:add_expert_info(PI_MALFORMED, PI_ERROR, "frame length " .. length .. " out of range")
            offset = total
            break
        end
        if total - offset - 4 < length then
            pinfo.desegment_offset = offset
            pinfo.desegment_len = length + 4 - (total - offset)
            break
        end
        summaries[#summaries + 1] = dissect_frame(tvb, pinfo, tree, offset, length)
        offset = offset + 4 + length
    end
    if #summaries > 0 then
        -- One packet may carry several TLS records, each handed over on its own: the first
        -- replaces TLS's Info, the others add to it.
        local text = table.concat(summaries, ", ")
        if tostring(pinfo.cols.protocol) == "HANDOFF" then
            pinfo.cols.info:append(", " .. text)
        else
            pinfo.cols.protocol = "HANDOFF"
            pinfo.cols.info = text
        end
    end
    return total
end

function session.dissector(tvb, pinfo, tree)
    return dissect_frames(tvb, pinfo, tree)
end

local function looks_like_session(tvb)
    if tvb:len() < 6 then return false end
    local length = tvb(0, 4):uint()
    if length < 2 or length > maximum_frame_length then return false end
    if tvb(4, 1):uint() ~= protocol_version then return false end
    return frame_names[tvb(5, 1):uint()] ~= nil
end

local function heuristic(tvb, pinfo, tree)
    if not looks_like_session(tvb) then return false end
    dissect_frames(tvb, pinfo, tree)
    return true
end

session:register_heuristic("tls", heuristic)
